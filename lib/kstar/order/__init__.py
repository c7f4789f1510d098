"""Task orders and the text-side baseline of paper 002 (App. A.2.1, A.2.3): K03's wing."""
