"""What K notebooks' claims read beyond the tables: the paper's reported values (``paper_values``), populations and
notes, and the draws their power is weighed with."""
