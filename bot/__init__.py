"""confbot surfaces (CLI, Slack, web) and the wiring of core and connectors."""
