"""Threat-model presets (issue 40 item 4): demographic and location columns recognised by name, the key each preset
gives, what it says when it matches nothing, and which columns each attack treats as secret."""

from __future__ import annotations

import pytest

from privcore.data.threat_models import DEMOGRAPHICS, LOCATION, THREAT_MODELS, preset_key, recognise, secret_sentence
from privcore.demo import ADULT_TYPES

MODELS = {m.id: m for m in THREAT_MODELS}


@pytest.mark.parametrize("name", ["age", "Age", "AGE_GROUP", "sex", "gender", "race", "ethnicity", "marital-status",
                                  "maritalStatus", "date_of_birth", "yearOfBirth", "religion", "nationality"])
def test_demographic_names_are_recognised(name):
    assert DEMOGRAPHICS.matches(name) and not LOCATION.matches(name)


@pytest.mark.parametrize("name", ["zip", "ZIP5", "zip_code", "postcode", "PostalCode", "native-country", "state",
                                  "city", "region", "province", "county", "latitude"])
def test_location_names_are_recognised(name):
    assert LOCATION.matches(name) and not DEMOGRAPHICS.matches(name)


@pytest.mark.parametrize("name", ["wage", "page_views", "percentage", "average", "stage", "income", "occupation",
                                  "diagnosis", "statement", "cityscape_score"])
def test_other_names_are_not(name):
    assert not DEMOGRAPHICS.matches(name) and not LOCATION.matches(name)


def test_the_presets_on_the_adult_columns():
    columns = list(ADULT_TYPES)
    assert preset_key(MODELS["demographics"], columns, "income").key == ["age", "marital-status", "relationship",
                                                                         "race", "gender"]
    both = preset_key(MODELS["demographics_location"], columns, "income")
    assert both.key == ["age", "marital-status", "relationship", "race", "gender", "native-country"]
    assert "recognised by their names" in both.message
    everything = preset_key(MODELS["all_but_sensitive"], columns, "income")
    assert everything.key == [c for c in columns if c != "income"]


def test_the_sensitive_column_is_never_in_the_key():
    assert preset_key(MODELS["demographics"], ["age", "race", "job"], "race").key == ["age"]


def test_a_preset_that_matches_nothing_says_so_and_gives_no_key():
    none = preset_key(MODELS["demographics"], ["job", "income"], "income")
    assert none.key == [] and "matches no column" in none.message and "no demographic column" in none.message
    partly = preset_key(MODELS["demographics_location"], ["age", "job", "income"], "income")
    assert partly.key == ["age"] and "no location column was recognised" in partly.message
    blind = preset_key(MODELS["all_but_sensitive"], ["age", "job"], None)
    assert blind.key == [] and "choose the sensitive column first" in blind.message


def test_recognise_keeps_the_table_order():
    assert recognise(["zip", "age", "sex", "city"], DEMOGRAPHICS) == ["age", "sex"]


def test_the_secret_sentence_names_each_attacks_secret():
    text = secret_sentence(["age", "sex", "job", "income"], ["age"], "income")
    assert "as secret: sex, job and income." in text and "sensitive column only: income." in text
    assert "nothing to reconstruct" in secret_sentence(["age", "job"], ["age", "job"], None)
    assert "none is chosen" in secret_sentence(["age", "job"], ["age"], None)
