"""confbot connectors: bring pages in from Confluence or files and keep the index in step."""
