"""The facade's parts: each is one domain of what a client can do, composed by ``core.services.Quire``."""
