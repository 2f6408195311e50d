; Blocksworld with tower moves: the relaxed action space of the DRIP paper
; (section 4.1.1), written by veriplan. There is no hand: any number of blocks
; can be held, and a block moves together with every block above it.
;   stack ?x ?y       put ?x (and what is on it) on the clear block ?y of another tower
;   put-down ?x       put ?x (and what is on it) on the table
;   unstack-blocks ?x clear ?x: what is on it goes to the table, as one tower
; (above ?a ?b) holds when ?a is somewhere above ?b in the same tower; problems
; are translated from the four-action domain with this relation filled in.
; The (not (= ...)) tests in effect conditions exclude ground effects that could
; only fire in impossible states (a block above itself), so a ground action's
; effects say exactly what it can change.
(define (domain blocksworld-towers)
  (:requirements :adl)
  (:predicates (clear ?x) (ontable ?x) (on ?x ?y) (above ?x ?y))

  (:action stack
    :parameters (?x ?y)
    :precondition (and (not (= ?x ?y)) (clear ?y) (not (above ?y ?x)))
    :effect (and (on ?x ?y) (not (clear ?y)) (not (ontable ?x))
                 (forall (?z)
                   (when (and (not (= ?z ?x)) (on ?x ?z)) (and (not (on ?x ?z)) (clear ?z))))
                 (forall (?z ?w)
                   (when (and (not (= ?w ?x)) (not (= ?z ?w))
                              (or (= ?z ?x) (above ?z ?x)) (above ?x ?w))
                         (not (above ?z ?w))))
                 (forall (?z ?w)
                   (when (and (not (= ?w ?x)) (not (= ?z ?w))
                              (or (= ?z ?x) (above ?z ?x)) (or (= ?w ?y) (above ?y ?w)))
                         (above ?z ?w)))))

  (:action put-down
    :parameters (?x)
    :precondition (not (ontable ?x))
    :effect (and (ontable ?x)
                 (forall (?z)
                   (when (and (not (= ?z ?x)) (on ?x ?z)) (and (not (on ?x ?z)) (clear ?z))))
                 (forall (?z ?w)
                   (when (and (not (= ?w ?x)) (not (= ?z ?w))
                              (or (= ?z ?x) (above ?z ?x)) (above ?x ?w))
                         (not (above ?z ?w))))))

  (:action unstack-blocks
    :parameters (?x)
    :precondition (not (clear ?x))
    :effect (and (clear ?x)
                 (forall (?z)
                   (when (and (not (= ?z ?x)) (on ?z ?x)) (and (not (on ?z ?x)) (ontable ?z))))
                 (forall (?z ?w)
                   (when (and (not (= ?z ?x)) (not (= ?z ?w))
                              (above ?z ?x) (or (= ?w ?x) (above ?x ?w)))
                         (not (above ?z ?w))))))
)
