"""Reading captures back: pages, searches and the full-text index."""
