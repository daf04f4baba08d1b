"""User profiles (the design documents' "user profile service"): who is shopping, size, budget.

``get_user`` raises the typed not-found error (JSON-RPC -32002) for an unknown id, so a graph
node can map it to a default. Run: ``python examples/langgraph/profile_server.py [--http]``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from _serve import main, versions

from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.server import Message, Server


@dataclass
class UserProfile:
    user_id: str
    name: str
    city: str
    shoe_size: float
    budget: float
    """Most the user wants to spend on one item (CNY)."""
    interests: list[str] = field(default_factory=list)


USERS = {
    "u1": UserProfile("u1", "李伟 Li Wei", "Shanghai", 42, 1000.0, ["running", "跑步鞋"]),
    "u2": UserProfile("u2", "Anna Berg", "Oslo", 39, 1500.0, ["running", "watches"]),
}


def build(legacy_only: bool = False) -> Server:
    server = Server("profile", "1.0.0", supported_versions=versions(legacy_only))

    @server.tool(read_only=True)
    def get_user(user_id: str) -> UserProfile:
        """A user's profile: city, shoe size, budget (CNY) and interests."""
        user = USERS.get(user_id)
        if user is None:
            raise ResourceNotFound(f"no user {user_id!r}", {"uri": f"profile://users/{user_id}"})
        return user

    @server.resource("profile://users", mime_type="application/json")
    def users() -> str:
        """Every user id and name."""
        return json.dumps({u.user_id: u.name for u in USERS.values()}, ensure_ascii=False)

    @server.prompt
    def recommend(user_id: str) -> list[Message]:
        """Ask for a recommendation for one user."""
        user = USERS.get(user_id)
        about = json.dumps(asdict(user), ensure_ascii=False) if user else f"unknown user {user_id}"
        return [Message(f"Recommend running shoes for this user: {about}")]

    return server


if __name__ == "__main__":
    main(build)
