from django import template

from recam.agreement import NONE_FITS
from validation.selectors import user_is_annotator

register = template.Library()


@register.filter
def is_annotator(user) -> bool:
    return user_is_annotator(user=user)


@register.filter
def pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


@register.filter
def number(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


@register.filter
def answer_name(value: int) -> str:
    return "none fits" if value == NONE_FITS else str(value + 1)


@register.filter
def index(sequence, i: int):
    return sequence[i]
