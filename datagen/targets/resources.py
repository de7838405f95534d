"""The resources a candidates run's stages need (spaCy, WordNet, vectors, scorers), loaded once per process."""

from dataclasses import dataclass, field

from datagen.targets.config import Settings


@dataclass
class Resources:
    """Everything a stage needs; loaded once per process by ``load_resources``."""

    nlp: object
    wordnet: object
    vectors: object
    imperceptibility: object | None = None
    senses: object | None = None  # a NonspecificityScorer: the chosen sense of a summary token
    encoder: object | None = None
    names: dict = field(default_factory=dict)


_RESOURCES: dict[tuple, Resources] = {}


def _load_senses(settings: Settings, res: Resources) -> None:
    from datagen.targets.nonspecificity import NonspecificityScorer
    from datagen.targets.wsd import build_disambiguator

    disambiguator = build_disambiguator(name=settings.wsd, wordnet=res.wordnet)
    res.senses = NonspecificityScorer(
        lesk=disambiguator, window=settings.lesk_window, context=settings.wsd_context
    )
    res.names["wsd"] = f"{settings.wsd} ({settings.wsd_context})"


def load_resources(*, settings: Settings, encoder: bool | None = None) -> Resources:
    """The resources for ``settings``, cached per process (a Celery worker loads them once)."""
    from datagen.nlp import load_nlp
    from lexicon import resources
    from lexicon.vectors import load_vectors

    want_encoder = settings.use_encoder if encoder is None else encoder
    key = (settings.subtask, settings.lesk_window, settings.wsd, settings.wsd_context, settings.synonym_scope)
    key += (settings.imperceptibility_scale, settings.calibration, want_encoder)
    if key not in _RESOURCES:
        res = Resources(nlp=load_nlp(), wordnet=resources.wordnet(), vectors=load_vectors())
        res.names = {"spacy": resources.spacy_model_name(), "vectors": res.vectors.name}
        if settings.subtask == 1:
            from datagen.targets.imperceptibility import load_imperceptibility

            res.imperceptibility = load_imperceptibility(
                scale=settings.imperceptibility_scale, calibration=settings.calibration
            )
            res.names["imperceptibility"] = f"{res.imperceptibility.name} {res.imperceptibility.sha256[:12]}"
        if settings.subtask == 2 or settings.synonym_scope == "sense":
            _load_senses(settings, res)
        if want_encoder:
            from datagen.targets.encoder import load_encoder

            res.encoder = load_encoder()
            res.names["encoder"] = res.encoder.name
        _RESOURCES[key] = res
    return _RESOURCES[key]
