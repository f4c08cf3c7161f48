"""The REST API of accounts and matches: thin views, one service or selector call each, a
module per job (accounts, the game catalogue, matches, a seat's polling and acting, logs).

Each view checks the request's shape with its Input serializer, calls a service or selector,
and renders with its Output serializer. Errors are raised, never built here: the exception
handler (``config.exceptions``) turns them into ``{"code": ..., "detail": ...}``.
"""
