module libair/air/tests

go 1.19

require libair/air v0.0.0

replace libair/air => ../../../bindings/go
