"""The web faces of tournaments and leagues: pages, organising pages, forms, list filters."""
