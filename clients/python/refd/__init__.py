"""refd: a Python client of the refd referee daemon (refd-protocol(7))."""
from .client import (Acted, Client, Created, EventsPage, Joined, Legal,
                     LegalItem, Pending, ProtocolError, RefdError,
                     Subscription, View, default_endpoint)
from ._nn import NanomsgError

__all__ = ["Client", "RefdError", "ProtocolError", "NanomsgError",
           "Subscription", "Created", "Joined", "Acted", "Legal", "LegalItem",
           "Pending", "View", "EventsPage", "default_endpoint"]
__version__ = "0.1.0"
