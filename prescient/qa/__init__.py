"""Question answering: building Daily Oracle questions from the news (construction,
filtering, categorisation) and the schema of the questions it writes."""
