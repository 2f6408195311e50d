; A four-operator blocks world, written for veriplan's examples.
(define (domain blocks)
  (:requirements :strips)
  (:predicates (on ?top ?below) (ontable ?b) (clear ?b) (holding ?b) (handempty))

  (:action pick-up
    :parameters (?b)
    :precondition (and (ontable ?b) (clear ?b) (handempty))
    :effect (and (holding ?b) (not (ontable ?b)) (not (clear ?b)) (not (handempty))))

  (:action put-down
    :parameters (?b)
    :precondition (holding ?b)
    :effect (and (ontable ?b) (clear ?b) (handempty) (not (holding ?b))))

  (:action stack
    :parameters (?b ?below)
    :precondition (and (holding ?b) (clear ?below))
    :effect (and (on ?b ?below) (clear ?b) (handempty)
                 (not (holding ?b)) (not (clear ?below))))

  (:action unstack
    :parameters (?b ?below)
    :precondition (and (on ?b ?below) (clear ?b) (handempty))
    :effect (and (holding ?b) (clear ?below)
                 (not (on ?b ?below)) (not (clear ?b)) (not (handempty)))))
