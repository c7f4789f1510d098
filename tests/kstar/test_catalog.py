"""lib.kstar.catalog: the task names the schemas and the pools share; the default leaves out the length cue."""

from lib.kstar import catalog, schemas
from lib.kstar.tasks import tasks


def test_every_catalogued_task_has_a_pool_the_default_is_the_cue_free_subset_and_hub_tasks_are_allowed():
    assert set(catalog.TASKS) == set(tasks.SOURCES)
    assert catalog.DEFAULT_TASKS == tuple(t for t in catalog.TASKS if t not in ("bbq_ambiguity", "discrim_question"))
    assert schemas.KstarParams().tasks == catalog.DEFAULT_TASKS
    choices = schemas.KstarParams.__dataclass_fields__["tasks"].metadata["choices"]
    assert choices == catalog.TASKS + catalog.HUB_TASK_NAMES
