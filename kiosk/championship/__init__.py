"""The championship: each table's kiosk linked to an MQTT broker, and the organizer's view over every table."""
