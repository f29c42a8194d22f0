"""The card games on the kiosk (Truco first): each tap checked by the card engines and logged, dealt face down."""
