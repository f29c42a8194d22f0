"""Card games played at the Cacho tables: Spanish Cacho, Pif Paf, Cacheta and Brazilian Truco."""
