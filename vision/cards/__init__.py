"""Playing cards on the table: rendered training scenes, labels and the evaluation of card readings."""
