"""lib.models.registry: the models known by name."""



from lib.models import layer_resolver, loading, registry

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]




def test_registry_and_layers():
    assert set(registry.OFFLINE_DEFAULTS) <= set(registry.REGISTRY)
    assert loading.n_layers("minilm") == 6 and layer_resolver.mid_layer("minilm") == 3
