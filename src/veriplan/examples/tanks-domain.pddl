; A truck that burns fuel on each road: numeric fluents, a metric, derived reachability.
(define (domain tanks)
  (:requirements :strips :typing :numeric-fluents :derived-predicates)
  (:types truck place)
  (:predicates (at ?t - truck ?p - place) (road ?a ?b - place) (reachable ?t - truck ?p - place))
  (:functions (fuel ?t - truck) (capacity ?t - truck) (distance ?a ?b - place) (used) - number)
  (:derived (reachable ?t - truck ?p - place)
    (or (at ?t ?p) (exists (?q - place) (and (reachable ?t ?q) (road ?q ?p)))))
  (:action drive
    :parameters (?t - truck ?a ?b - place)
    :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) (distance ?a ?b)))
    :effect (and (not (at ?t ?a)) (at ?t ?b)
                 (decrease (fuel ?t) (distance ?a ?b))
                 (increase (used) (distance ?a ?b))))
  (:action refuel
    :parameters (?t - truck ?p - place)
    :precondition (and (at ?t ?p) (< (fuel ?t) (capacity ?t)))
    :effect (and (assign (fuel ?t) (capacity ?t)))))
