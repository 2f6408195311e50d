; A small temporal domain for the settled temporal cases (cases.yaml): work has a
; fixed duration and an over-all condition, flex a duration of at most 5.
(define (domain durative)
  (:requirements :strips :durative-actions)
  (:predicates (ready) (done))
  (:durative-action work :parameters ()
    :duration (= ?duration 2)
    :condition (over all (ready))
    :effect (at end (done)))
  (:durative-action flex :parameters ()
    :duration (<= ?duration 5)
    :condition (at start (ready))
    :effect (at end (done))))
