module libair/examples

go 1.19

require libair/air v0.0.0 // a placeholder: the replace line decides

replace libair/air => ../../bindings/go
