"""The ground floor both datagen/ and baselines/ stand on: WordNet access and resource paths (resources),
word vectors (vectors), derived word forms (wordforms), WordNet glosses (glosses), the one file hash
and atomic write (files), and torch's thread count (threads). Django-free; imports nothing of the project but recam/.
"""
