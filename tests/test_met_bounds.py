"""A question's quantity that meets a bound the clause states counts as held
(`core.met_bounds`), so the clause decides the yes/no question."""

import pytest

from core.deciding_clause import decides
from core.met_bounds import met_terms

TAXI = "Taxis are fine late at night (after 22:00), or when no public transport is available."


@pytest.mark.parametrize(
    ("question", "clause", "met"),
    [
        ("Can I take a taxi at 23:00?", TAXI, {"23", "00"}),
        ("Is business class allowed on a 9 hour flight?", "Allowed over 6 hours.", {"9"}),
        ("Can I carry over 3 days?", "Up to 5 unused days can be carried over.", {"3"}),
        ("Darf ich ab 19:30 ein Taxi nehmen?", "Taxis sind ab 18:00 erlaubt.", {"19", "30"}),
        ("Is the office open at 9:30?", "Open from 08:00 until 18:00.", {"9", "30"}),
    ],
)
def test_a_quantity_meeting_the_bound_is_held(question, clause, met):
    assert met_terms(question, clause) == met


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        ("Can I take a taxi at 21:00?", TAXI),  # before the bound
        ("Is the office open at 7:00?", "Open from 08:00 until 18:00."),  # outside the range
        ("Is business class allowed on a 5 hour flight?", "Allowed for flights over 6 hours."),
        ("Can I take a taxi at 23:00?", "Flights over 6 hours may be booked."),  # other kind
        ("Can I take a taxi at 23:00?", "Taxis are fine at night."),  # no bound written
    ],
)
def test_a_quantity_that_misses_or_has_no_bound_is_not_held(question, clause):
    assert met_terms(question, clause) == set()


def test_a_bound_met_lets_the_clause_decide():
    assert decides("Can I take a taxi at 23:00?", TAXI)
    assert not decides("Can I take a taxi at 21:00?", TAXI)
