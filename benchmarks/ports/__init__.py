"""Line-by-line ports of benchmarks/bench_gpt2.py's GPT-2 forward pass, for planning it with other
libraries' shape machinery (bench_plan.py): PyTorch's FakeTensorMode and ``jax.eval_shape``."""
