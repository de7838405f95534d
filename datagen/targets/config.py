"""The settings of a candidates run: each stage's choices and their defaults.

The scorers (``wsd``, ``imperceptibility``) take their choices from here and this module imports no
scorer; :mod:`datagen.targets.resources` loads what the chosen settings need.
"""

from dataclasses import asdict, dataclass

from datagen.targets import filters

SUBTASKS = (1, 2)
WSD_CHOICES = (
    "signature",
    "signature-mfs",
    "lesk",
    "pywsd",
    "first-sense",
    "embedding",
)  # see datagen.targets.wsd
DEFAULT_WSD = "signature"
WSD_CONTEXTS = ("text", "window")  # see datagen.targets.nonspecificity
SCALES = ("mrc+calibrated", "regressor")  # see datagen.targets.imperceptibility
DEFAULT_SCALE = "mrc+calibrated"
# The calibration map's fit: on held-out (out-of-fold) predictions, or in-sample (version 3).
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
