"""Reading trained checkpoints and locating the paper's matrices in them."""
