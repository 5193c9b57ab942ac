"""Bits per character of dated news under each model, and the Temporal Bias Index.

FreshBench (NAACL 2025, sections 2.2.1 and 3) reads how well a language model
compresses text written before and after its release: the bits per character of each
document (its negative log-likelihood in bits over its length in characters, so models
with different tokenizers compare), averaged over calendar buckets, and the slope of that
curve over time (the Temporal Bias Index). Every token of a text is scored, in segments
of the model's context (FreshBench's appendix: 2048 tokens). Modules: ``settings`` (the
``bpc`` params section), ``documents`` (buckets and the seeded sample), ``scoring`` (one
document's score and the segments of context, from :mod:`prescient.llm.logprobs`),
``scorers`` (which models can be scored, and their request params), ``run`` (one
log-probability request per document through the LLM gateway, whose transports read
llama.cpp in-process or an OpenAI-compatible completions server), ``tbi`` (per-bucket
BPC, the index, post-release changes, bootstrap intervals), ``tables`` (output schemas)
and ``pipeline`` (the stage's library entry point).
"""
