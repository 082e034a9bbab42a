"""The Web Push channel: the server's VAPID key pair (pbem.push.keys) and the adapter
of the notification port that pushes an outbox row of channel "push" to a browser's
push service (pbem.push.channel)."""
