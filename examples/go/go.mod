module libair/examples

go 1.19

require libair/air v1.0.0

replace libair/air => ../../bindings/go
