(define (problem c1) (:domain counters) (:init (= (f) 0) (= (g) 0))
  (:goal (and (>= (f) 1) (>= (g) 1))) (:metric minimize (total-time)))
