"""White-box checks of what the core wrote: the one place tests reach past the facade (to its collaborators)."""

from core.inside import inside  # the benches' door past the facade, the same for tests

__all__ = ["inside"]
