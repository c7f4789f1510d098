"""Paper 002's task pools (App. A.1.3): the offline pools, the hub's, your own file's, and the surface-cue audit."""
