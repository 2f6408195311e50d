; Numeric corners where VAL 4 and PDDL 2.1 part ways (cases.yaml: strict-comparison,
; undefined-increase, division-by-zero).
(define (domain meter)
  (:requirements :strips :numeric-fluents)
  (:predicates (done))
  (:functions (a) (b) (k))
  (:action above :parameters () :precondition (and (> (a) (b))) :effect (and (done)))
  (:action below :parameters () :precondition (and (< (a) (b))) :effect (and (done)))
  (:action bump :parameters () :precondition (and) :effect (and (increase (k) 1) (done)))
  (:action split :parameters () :precondition (and) :effect (and (assign (a) (/ 1 (b))) (done))))
