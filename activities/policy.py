"""Text checks of the gate: the order's words against the contract and the word list."""

from __future__ import annotations

from pydantic import ValidationError

from media.text_policy import PolicyHit, find_abuse, load_word_list
from workflows.contract import FilmOrder


def customer_text(order: FilmOrder) -> dict[str, str]:
    """The customer's words by field: names, relationship, stories, each feeling word."""
    fields = {"recipient_name": order.recipient_name, "relationship": order.relationship,
              "memory": order.memory, "story_note": order.story_note}
    fields.update({f"feeling_words.{i}": word for i, word in enumerate(order.feeling_words)})
    return fields


def text_outside_contract(order: FilmOrder) -> str | None:
    """Why the order's text breaks the contract, or ``None`` when it is within it.

    Defence in depth: an order that skipped validation on its way here (a converter that does
    not validate, ``model_construct``) is validated again; its text must come back unchanged,
    i.e. within the limits and already stripped of control characters.
    """
    try:
        again = FilmOrder.model_validate(order.model_dump())
    except ValidationError as exc:
        return "; ".join(f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
                         for error in exc.errors()[:3])
    cleaned = customer_text(again)
    changed = [name for name, text in customer_text(order).items() if cleaned.get(name) != text]
    return f"control characters in {', '.join(changed)}" if changed else None


def abusive_text(order: FilmOrder, word_list_source: str | None) -> list[PolicyHit]:
    """Fields whose words match the configured word list (``FILM_TEXT_POLICY_WORDS``)."""
    return find_abuse(customer_text(order), load_word_list(word_list_source))
