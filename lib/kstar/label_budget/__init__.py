"""The label budget of paper 002 (App. A.4): budgets, LoRA students, learning curves and N*: K08's wing."""
