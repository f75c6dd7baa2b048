"""The Configure page's "what the attacker knows" presets: set the key of the form's draft from a threat model.

The presets and the column recognisers are :mod:`privcore.data.threat_models`. No Streamlit import.
"""

from __future__ import annotations

from collections.abc import MutableMapping

from dashboard.schema_form import analysed_columns, default_key
from privcore.data import THREAT_MODELS, preset_key, secret_sentence

__all__ = ["NOTE", "apply_preset", "key_of", "secret_columns_sentence"]

#: The session-state key of the last preset's sentence.
NOTE = "cfg_preset_note"


def apply_preset(state: MutableMapping, model_id: str) -> None:
    """Set the draft's key (and the key widget) from the threat model ``model_id``.

    Keep it when the preset matches no column. The sentence that says what happened goes to ``state[NOTE]`` as
    ``(found_any, text)``.

    Notes
    -----
    Session-state keys used here: ``cfg_key`` (the key widget), ``schema_draft`` and ``cfg_preset_note`` (the sentence of
    the last preset applied, shown under the buttons until the key is chosen by hand).
    """
    model = next(m for m in THREAT_MODELS if m.id == model_id)
    draft = state["schema_draft"]
    proposal = preset_key(model, analysed_columns(draft), draft["sensitive"])
    if proposal.key:
        # "Everything but the sensitive column" is the default key: it keeps following the sensitive column.
        draft["key"] = None if model.everything else list(proposal.key)
        state["cfg_key"] = list(proposal.key)
    state[NOTE] = (bool(proposal.key), proposal.message)


def key_of(draft: dict) -> list[str]:
    """The key the draft describes: the chosen one, or the default (every analysed column but the sensitive one)."""
    return list(draft["key"]) if draft["key"] is not None else default_key(draft)


def secret_columns_sentence(draft: dict) -> str:
    """Which columns the reconstruction attacks and Anonymeter's inference attack treat as secret, for the draft."""
    return secret_sentence(analysed_columns(draft), key_of(draft), draft["sensitive"])
