"""Pif Paf (seed 001): ante, one betting round, draw and discard until someone goes out with nine melded cards."""
