"""The settings of a candidates run and the resources its stages need (loaded once per process).

Split from ``datagen.pipeline`` (which imports both from here).
"""

from dataclasses import asdict, dataclass, field

from datagen import filters

SUBTASKS = (1, 2)
WSD_CHOICES = ("signature", "signature-mfs", "lesk", "pywsd", "first-sense", "embedding")  # see datagen.wsd
DEFAULT_WSD = "signature"
WSD_CONTEXTS = ("text", "window")  # see datagen.nonspecificity
SCALES = ("mrc+calibrated", "regressor")  # see datagen.imperceptibility
DEFAULT_SCALE = "mrc+calibrated"
# The calibration map's fit (issue #12): on held-out (out-of-fold) predictions, or in-sample (version 3).
CALIBRATIONS = ("held-out", "in-sample")
DEFAULT_CALIBRATION = "held-out"
SYNONYM_SCOPES = ("sense", "all")


@dataclass(frozen=True)
class Settings:
    subtask: int
    imperceptibility_max: float = 0.35
    depth_max: int = 6
    glove_max: float = filters.DEFAULT_GLOVE_MAX
    contextual_max: float = filters.DEFAULT_CONTEXTUAL_MAX
    lesk_window: int = 8
    use_encoder: bool = True
    wsd: str = DEFAULT_WSD
    wsd_context: str = "text"
    synonym_scope: str = "sense"
    imperceptibility_scale: str = "mrc+calibrated"
    calibration: str = DEFAULT_CALIBRATION
    pos_rescue: bool = True

    def __post_init__(self) -> None:
        if self.subtask not in SUBTASKS:
            raise ValueError(f"subtask must be 1 or 2, got {self.subtask!r}")
        for name, value, allowed in (
            ("wsd", self.wsd, WSD_CHOICES),
            ("wsd context", self.wsd_context, WSD_CONTEXTS),
            ("synonym scope", self.synonym_scope, SYNONYM_SCOPES),
            ("imperceptibility scale", self.imperceptibility_scale, SCALES),
            ("calibration", self.calibration, CALIBRATIONS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")

    def to_json(self) -> dict:
        return asdict(self)


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
    from datagen.nonspecificity import NonspecificityScorer
    from datagen.wsd import build_disambiguator

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
            from datagen.imperceptibility import load_imperceptibility

            res.imperceptibility = load_imperceptibility(
                scale=settings.imperceptibility_scale, calibration=settings.calibration
            )
            res.names["imperceptibility"] = f"{res.imperceptibility.name} {res.imperceptibility.sha256[:12]}"
        if settings.subtask == 2 or settings.synonym_scope == "sense":
            _load_senses(settings, res)
        if want_encoder:
            from datagen.encoder import load_encoder

            res.encoder = load_encoder()
            res.names["encoder"] = res.encoder.name
        _RESOURCES[key] = res
    return _RESOURCES[key]
