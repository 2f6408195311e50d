(define (problem s) (:domain strict) (:init (= (f) 5) (= (g) 5)) (:goal (done)))
