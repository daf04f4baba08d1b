"""The client side of Streamable HTTP (httpx): the transport and its era legs."""
