"""The store: the events table (the only truth), read models, snapshots, outbox."""
