"""The coordinator's kiosk for a Dudo table."""
