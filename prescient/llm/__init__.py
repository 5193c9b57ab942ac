"""The LLM gateway: one way to call any model, behind an auditable response ledger.

Stages build ``prescient.llm.types.LLMRequest`` objects and call
``prescient.llm.gateway.Gateway.from_params(params, stage, ledger_path).complete_many``.
Import from the defining modules; this package file re-exports nothing, so a stage
depends only on the modules it uses.
"""
