"""The models wing: which models the companion knows (:mod:`~lib.models.registry`), how the offline ones are built
(:mod:`~lib.models.converters`) or fetched from the hub (:mod:`~lib.models.hub`), their folders and the one loader
(:mod:`~lib.models.loading`), layers by name (:mod:`~lib.models.layer_resolver`), architecture facts from
``config.json`` (:mod:`~lib.models.architecture`), and pooled hidden states with their
cache (:mod:`~lib.models.extraction`, :mod:`~lib.models.feature_cache`), and the precision a training loop runs in
(:mod:`~lib.models.precision`).
"""
