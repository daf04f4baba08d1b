"""The product-search example: one OpenAPI contract (``openapi.yaml``), one SQLite catalog,
served contract-first as MCP and REST (``service.py``) and, for comparison, as an ordinary
FastAPI service (``fastapi_app.py``)."""
