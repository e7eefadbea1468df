"""Example training code shipped with the libair workload examples."""
