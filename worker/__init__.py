"""The worker processes: Celery tasks that deliver mail and play bots and timeouts,
and the one scheduler that sweeps the database and hands them work."""
