"""The matchmaking service: a ticket queue that seats players at 2-8 seat tables on the engine,
and private rooms with invite codes. Several replicas share the work through Redis."""
