"""What K notebooks' claims read beyond the tables: the paper's cells, populations and notes, and the draws their
power is weighed with."""
