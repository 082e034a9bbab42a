"""The web app: Flask pages and the JSON API."""
