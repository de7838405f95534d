from django import template

register = template.Library()


@register.filter
def percent(value: float | None, digits: int = 2) -> str:
    """0.57825 -> '57.83' (accuracy in percent, as in the task paper's tables); None -> '-'."""
    return "-" if value is None else f"{100 * value:.{digits}f}"


@register.filter
def drop(value: float | None) -> str:
    """The Acc minus Acc. Cross difference, in points with an arrow: '↓ 1.10'."""
    if value is None:
        return ""
    return f"{'↓' if value >= 0 else '↑'} {abs(100 * value):.2f}"


@register.filter
def plusminus(half_width: float | None) -> str:
    """Half the 95% interval in points, one decimal: 0.0213 -> '±2.1'; None -> ''."""
    return "" if half_width is None else f"±{100 * half_width:.1f}"
