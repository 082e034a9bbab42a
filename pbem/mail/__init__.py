"""Mail: composing the outbox's mails, delivering them by SMTP, and a local catcher
for development and tests."""
