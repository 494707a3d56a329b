"""The schemes the book covers: one folder each, found by discovery (``costbook.registry``).

A scheme's code imports what it needs of the contract from here (``Bounds``, ``option``,
``options``, ``check_parameters``); the core reads the schemes through ``costbook.registry``,
below it, and never imports this package or a scheme's module.
"""
from ..registry import (MANIFEST_API, MODEL_API, REGISTRY, Bounds, SchemeError, check_model, check_options, check_validation_options,
    check_parameters, comparison, folder, get, in_book_order, manifest, model, option, option_words, options,
    problems, refused, seed_notes, StepGroup, value_words)
