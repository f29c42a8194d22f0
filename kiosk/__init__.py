"""The coordinator's kiosk: Flask application, command line and demo table."""
